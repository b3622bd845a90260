[playlist]
NumberOfEntries=5
File1=http://a.example/one
File2=subfile:/etc/passwd
File3=crypto+file:///etc/passwd
File4=hls+file:///tmp/a.m3u8
File5=relative.mp3
